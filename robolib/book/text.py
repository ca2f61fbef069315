"""Numbers as a reader writes them in the prose: powers of ten with superscripts, minus signs, scientific notation.

The chapters glue these into their sentences and claim texts (``9.4 × 10⁻¹¹``, not ``9.4e-11``).
"""

from __future__ import annotations

import math
import re

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(k: int) -> str:
    """The integer ``k`` in superscript digits.

    >>> superscript(-12)
    '⁻¹²'
    """
    return str(int(k)).translate(_SUPERSCRIPT)


def power_text(x: float) -> str:
    """``x`` as text, an exact power of ten as ``10⁻³``.

    >>> power_text(1e-3), power_text(1e-12), power_text(2.5)
    ('10⁻³', '10⁻¹²', '2.5')
    """
    e = math.log10(x) if x > 0 else 0.5
    if e != int(e):
        return f"{x:g}"
    return "10" + superscript(int(e))


def sci_text(x: float, digits: int = 1) -> str:
    """``x`` in scientific notation as a reader writes it (``9.4 × 10⁻¹¹``), not as a machine prints it (``9.4e-11``).

    >>> sci_text(9.4e-11), sci_text(8.04e-8), sci_text(0.0), sci_text(2.5), sci_text(-2e-4, 0)
    ('9.4 × 10⁻¹¹', '8.0 × 10⁻⁸', '0', '2.5', '−2 × 10⁻⁴')
    """
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    mantissa = mantissa.replace("-", "−")
    if int(exponent) == 0:
        return mantissa
    return f"{mantissa} × 10" + superscript(int(exponent))


def minus_signs(text: str) -> str:
    """``text`` with the hyphen of each negative number set as a minus sign (as the prose and the figures set it);
    hyphens inside words, exponents and ranges ("period-2", "1e-10", "2-3") stay.

    >>> minus_signs("-4.54 ± 0.13 /s (from -2 to 3), period-2, 1e-10, [-1, 2]")
    '−4.54 ± 0.13 /s (from −2 to 3), period-2, 1e-10, [−1, 2]'
    """
    return re.sub(r"(?<![\w.\-])-(?=\.?\d)", "−", text)


def and_text(items) -> str:
    """Items in words, the last joined by "and".

    >>> and_text(["1", "2", "3"]), and_text(["3.375", "4"]), and_text(["4"]), and_text([])
    ('1, 2 and 3', '3.375 and 4', '4', '')
    """
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


__all__ = ["superscript", "power_text", "sci_text", "minus_signs", "and_text"]
