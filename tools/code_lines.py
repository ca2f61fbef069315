"""Count the code lines of a Python tree: blank, comment-only and docstring lines not counted.

``python tools/code_lines.py [folder ...]`` prints the count per file (largest first) and the total;
``--total`` prints the total only. The default folder is ``robolib``.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path


def docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers of the docstrings of the module, its classes and functions."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(source: str) -> int:
    """Lines holding a token other than a comment, outside docstrings.

    >>> code_lines('\"\"\"Doc.\"\"\"\\n\\n# note\\nx = 1  # one\\n\\ndef f():\\n    \"\"\"Doc\\n    more.\"\"\"\\n    return x\\n')
    3
    """
    skip = docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in skip)
    return len(lines)


def main(argv: list[str]) -> int:
    total_only = "--total" in argv
    folders = [a for a in argv if not a.startswith("--")] or ["robolib"]
    counts = {str(p): code_lines(p.read_text()) for f in folders for p in sorted(Path(f).rglob("*.py"))}
    if not total_only:
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1]):
            print(f"{n:6d}  {name}")
    print(sum(counts.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
