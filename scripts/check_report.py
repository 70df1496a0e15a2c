"""The report shared by the layout checks (module-cycles.py, file-sizes.py, facade-deps.py,
library-hygiene.py)."""


def finish(problems, ok_line):
    """Prints each problem (a list of lines) or `ok_line`; returns the exit status."""
    for lines in problems:
        for line in lines:
            print(line)
    if not problems:
        print(ok_line)
    return 1 if problems else 0
