"""The states an attendee's step passes through, made from the solution, for .ci/step-times.

  main done   the solution with its stretch task not started: each function whose starter body
              calls `StretchTask.notStarted()` takes the starter's version back (the stub), the
              rest stays the solution's
  failing     the solution with one catalogued wrong answer applied (Tests/WrongAnswers)
"""

import pathlib
import re

import swiftlines


def stubs(starter_text):
    """The starter's functions that are stretch stubs: their head line -> their lines."""
    source = swiftlines.Source(starter_text)
    found = {}
    for top in swiftlines.statements(source):
        for statement in top.walk():
            if statement.kind == "func" and any(
                    "StretchTask.notStarted()" in source.code[i]
                    for i in range(statement.start, statement.end + 1)):
                found[statement.head] = source.lines[statement.start: statement.end + 1]
    return found


def with_stubs(solution_text, stubbed):
    """`solution_text` with each function named in `stubbed` replaced by the stub."""
    source = swiftlines.Source(solution_text)
    lines = list(source.lines)
    replaced = set()
    functions = [s for top in swiftlines.statements(source) for s in top.walk()
                 if s.kind == "func" and s.head in stubbed]
    for statement in sorted(functions, key=lambda s: s.start, reverse=True):
        lines[statement.start: statement.end + 1] = stubbed[statement.head]
        replaced.add(statement.head)
    return "\n".join(lines), replaced


def main_done(root, step, folder):
    """Writes the "main done, stretch not started" variant of the step's solution into
    `folder` (a copy of the solution). Fails when a stub has no function to replace."""
    solution = next((root / "Solutions").glob(f"{step}-*"))
    starter = root / "Steps" / solution.name
    missing = []
    for path in sorted(starter.rglob("*.swift")):
        relative = path.relative_to(starter)
        stubbed = stubs(path.read_text())
        if not stubbed:
            continue
        target = pathlib.Path(folder) / relative
        text, replaced = with_stubs(target.read_text(), stubbed)
        # The stub may need an import the solution has no use for (the one of StretchTask).
        present = set(re.findall(r"^import \w+$", text, re.M))
        needed = [line for line in re.findall(r"^import \w+$", path.read_text(), re.M)
                  if line not in present]
        if needed:
            text = "\n".join(needed) + "\n" + text
        missing += [f"{relative}: {head}" for head in stubbed if head not in replaced]
        target.write_text(text)
    if missing:
        raise SystemExit("error: a stretch stub of the starter has no function of that name in "
                         "the solution: " + "; ".join(missing))


if __name__ == "__main__":
    import sys
    main_done(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3])
