"""Helpers of the book, not of the physics.

* :mod:`.claims` -- the claims register: every finding a chapter states, with its criterion;
* :mod:`.notebook` -- parameter checks, tables, rerun notes, Explore panels, animations;
* :mod:`.result` -- :class:`~robolib.book.result.StudyResult`, what a chapter's study returns.
"""
