"""The ledger of surviving mutants, one file per step (Tests/Mutants/StepN.ledger), and how a
mutant's test log is judged.

A ledger entry is a mutant's id on a line of its own, then one indented line:

    CoreDataController.swift · delete · self.entity = nil · 1
      equivalent: <why no caller can tell the mutant from the solution>

    CoreDataController.swift · try to try? · try self.moc.save() · 2
      killed by: <the name of the check that now kills it>

Lines starting with `#` are comments."""

import re
import subprocess

KINDS = ("equivalent", "killed by")


class Entry:
    def __init__(self, step, mutant, kind, value, line):
        self.step, self.mutant, self.kind, self.value, self.line = step, mutant, kind, value, line


def read_ledger(path, step):
    """The entries of a ledger file, and the problems with its form."""
    entries, problems, pending = {}, [], None
    if not path.exists():
        return entries, problems
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path.name}:{number}"
        if not line[0].isspace():
            if pending is not None:
                problems.append(f"{where}: the entry above has no `equivalent:` or `killed by:`")
            pending = (line.strip(), number)
            continue
        m = re.match(r"\s+(equivalent|killed by):\s*(.+)$", line)
        if pending is None or m is None:
            problems.append(f"{where}: expected a mutant's id, then `  equivalent: <reason>` or "
                            "`  killed by: <check>`")
            pending = None
            continue
        mutant, at = pending
        if mutant in entries:
            problems.append(f"{where}: a second entry for `{mutant}`")
        entries[mutant] = Entry(step, mutant, m.group(1), m.group(2).strip(), at)
        pending = None
    if pending is not None:
        problems.append(f"{path.name}:{pending[1]}: the entry has no `equivalent:` or `killed by:`")
    return entries, problems


class Verdict:
    REJECTED, KILLED, NO_LESSON, SURVIVED = "rejected", "killed", "killed without a lesson", \
        "survived"

    def __init__(self, kind, failed=(), detail=""):
        self.kind, self.failed, self.detail = kind, sorted(failed), detail


def judge(step, log_path, ended_in_time, lessons_awk):
    """The verdict on one run of a step's checks, from its log (attendee side, not verify)."""
    log = log_path.read_text(errors="replace")
    failed, optional = set(), set()
    for m in re.finditer(rf"^\[{step}\] ✘ yours[^\n]*? — (.+)$", log, re.M):
        name = m.group(1)
        if name.endswith("(stretch task, optional: not done yet)"):
            optional.add(name)
            continue
        if " (known gap: " in name:
            continue
        failed.add(re.sub(r" \(expected: [^)]*\)$", "", name))
    taught = set(subprocess.run(["awk", "-f", str(lessons_awk), str(log_path)],
                                capture_output=True, text=True).stdout.splitlines())
    ended = re.search(r"^. Test run with .* (passed|failed) after", log, re.M)
    if not ended_in_time:
        return Verdict(Verdict.NO_LESSON, failed, "hung: no end within the time limit")
    if not ended:
        cause = "the watchdog stopped it" if "WATCHDOG:" in log else "the test process crashed"
        why = re.search(r"(Fatal error: .*|Program crashed: .*|WATCHDOG: .*\S.*)", log)
        last = why.group(1) if why else " / ".join(
            line.strip() for line in log.strip().splitlines()[-2:])
        return Verdict(Verdict.NO_LESSON, failed, f"{cause}: {last.strip()}")
    if not failed:
        if ended.group(1) == "passed":
            return Verdict(Verdict.SURVIVED)
        return Verdict(Verdict.NO_LESSON, failed, "the run failed outside every check")
    # Killed when a failing check teaches; one that fails bare beside it is still reported.
    untaught, detail = failed - taught, ""
    if untaught:
        detail = ("also " if failed - untaught else "") + "failed without Rule/Hint/Read: " \
            + "; ".join(sorted(untaught))
    return Verdict(Verdict.KILLED if failed - untaught else Verdict.NO_LESSON, failed, detail)


def gate(results, ledgers, every_id):
    """What the ledgers and the results say is wrong, as lines; empty when the gate passes.
    `results`: (mutant, Verdict) of the mutants that ran; `ledgers`: step -> entries;
    `every_id`: step -> the ids of all its mutants (only the steps whose ledgers to check)."""
    problems = []
    for step, ids in every_id.items():
        for entry in ledgers.get(step, {}).values():
            if entry.mutant not in ids:
                problems.append(f"{step}.ledger:{entry.line}: no such mutant any more (the "
                                f"solution changed?): {entry.mutant}")
    for mutant, verdict in results:
        entry = ledgers.get(mutant.step, {}).get(mutant.id)
        if verdict.kind == Verdict.SURVIVED and entry is None:
            problems.append(f"{mutant.step}: survived, with no ledger entry: {mutant.id}")
        elif entry is None:
            continue
        elif entry.kind == "killed by" and entry.value not in verdict.failed:
            problems.append(f"{mutant.step}.ledger:{entry.line}: '{entry.value}' was to kill it, "
                            f"but it {verdict.kind}: {mutant.id}")
        elif entry.kind == "equivalent" and verdict.kind != Verdict.SURVIVED:
            by = f" by '{verdict.failed[0]}'" if verdict.failed else ""
            problems.append(f"{mutant.step}.ledger:{entry.line}: marked equivalent, but it was "
                            f"{verdict.kind}{by}: remove the entry: {mutant.id}")
    return problems
