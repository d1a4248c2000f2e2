"""The mutants of a step: the lines a solution adds to its starter (the attendee's lines), and
the operators applied to them, one mutant per application. Each mutant has a stable id that
does not depend on line numbers: its file, its operator, the statement it changes (its code on
one line) and an occurrence number among mutants with the same three."""

import difflib
import pathlib
import re

import swiftlines
from lock_split import decided_outside
from negations import negations

# The operators, in the order they are applied; a mutant that makes the same file as an earlier
# one is dropped (moving a defer up is also a swap: it keeps the more specific name).
OPERATORS = ["defer up", "delete", "swap", "return early", "wrap in Task", "duplicate",
             "try to try?", "try to try!", "try? to try!", "negate", "compare", "remove await",
             "perform to performAndWait", "performAndWait to perform", "shared value",
             "first to last", "key repeats", "decided outside the lock"]

COMPARISONS = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "&&": "||",
               "||": "&&"}


class Mutant:
    def __init__(self, step, file, operator, text, line, mutated, original):
        self.step, self.file, self.operator, self.text = step, file, operator, text
        self.line = line  # 1-based, for the reader only
        self.mutated, self.original = mutated, original
        self.occurrence = 1

    @property
    def id(self):
        return f"{self.file} · {self.operator} · {self.text} · {self.occurrence}"

    @property
    def diff(self):
        return "".join(difflib.unified_diff(
            self.original.splitlines(True), self.mutated.splitlines(True),
            f"a/{self.file}", f"b/{self.file}", n=2))


def attendee_lines(starter, solution):
    """Indices of the solution's lines that are not in the starter: code, not a comment, an
    import or a lone brace."""
    source = swiftlines.Source(solution)
    old = starter.split("\n") if starter is not None else []
    matcher = difflib.SequenceMatcher(None, old, source.lines, autojunk=False)
    added = set()
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("insert", "replace"):
            added.update(range(j1, j2))
    return {i for i in added
            if source.bare[i].strip()
            and not re.match(r"\s*import\s", source.bare[i])
            and not re.fullmatch(r"[\s{}()\[\],;]*", source.bare[i])}


def step_mutants(root, step):
    """Every mutant of a step, in a stable order, with its occurrence numbers."""
    solution = next((root / "Solutions").glob(f"{step}-*"))
    starter = root / "Steps" / solution.name
    mutants = []
    paths = sorted(solution.rglob("*.swift"))
    shared = shared_types(path.read_text() for path in paths)
    for path in paths:
        relative = path.relative_to(solution).as_posix()
        before = starter / relative
        text = path.read_text()
        mine = attendee_lines(before.read_text() if before.exists() else None, text)
        if mine:
            mutants += file_mutants(step, relative, text, mine, shared)
    seen, unique, counts = set(), [], {}
    for mutant in mutants:
        if mutant.mutated in seen or mutant.mutated == mutant.original:
            continue
        seen.add(mutant.mutated)
        key = (mutant.file, mutant.operator, mutant.text)
        counts[key] = counts.get(key, 0) + 1
        mutant.occurrence = counts[key]
        unique.append(mutant)
    return unique


def shared_types(texts):
    """The types that declare `static let shared`, in any of the files."""
    names = set()
    for text in texts:
        tree = swiftlines.statements(swiftlines.Source(text))
        for statement in (s for top in tree for s in top.walk()):
            if statement.kind == "type" and any(
                    re.search(r"\bstatic let shared\b", child.head)
                    for _, children in statement.blocks for child in children):
                name = re.search(r"\b(?:class|struct|enum|actor)\s+(\w+)", statement.head)
                if name:
                    names.add(name.group(1))
    return names


def file_mutants(step, file, text, mine, shared):
    source = swiftlines.Source(text)
    tree = swiftlines.statements(source)
    every = [s for top in tree for s in top.walk()]
    found = []

    def add(operator, statement, line, lines):
        mutated = "\n".join(lines)
        found.append(Mutant(step, file, operator, statement.text, line + 1, mutated, text))

    def replaced(start, end, new):
        return source.lines[:start] + new + source.lines[end + 1:]

    def attendee(statement):
        return any(i in mine for i in statement.own)

    def in_body(statement):
        return statement.context() == "body"

    def lines_of(statement):
        return source.lines[statement.start: statement.end + 1]

    # Statements: move a defer up, delete, swap, return early, wrap in Task, duplicate.
    for operator in OPERATORS[:6]:
        for statement in every:
            siblings, index = statement.siblings, statement.index
            following = siblings[index + 1] if index + 1 < len(siblings) else None
            if not attendee(statement) and not (
                    operator == "swap" and following is not None and attendee(following)):
                continue
            previous = siblings[index - 1] if index > 0 else None
            if operator == "defer up" and statement.kind == "defer" and previous is not None \
                    and in_body(previous):
                between = source.lines[previous.end + 1: statement.start]
                add(operator, statement, statement.start, replaced(
                    previous.start, statement.end,
                    between + lines_of(statement) + lines_of(previous)))
            elif operator == "delete" and statement.kind not in ("type", "case", "default"):
                add(operator, statement, statement.start,
                    replaced(statement.start, statement.end, []))
            elif operator == "swap" and in_body(statement) and index + 1 < len(siblings):
                after = siblings[index + 1]
                if statement.kind == "defer" or after.kind == "defer" or not in_body(after):
                    continue  # a defer moved up is its own operator; down, it is the same code
                mutant = Mutant(step, file, operator, f"{statement.text} ⇄ {after.text}",
                                statement.start + 1, "\n".join(replaced(
                                    statement.start, after.end,
                                    source.lines[statement.end + 1: after.start]
                                    + lines_of(after) + lines_of(statement))), text)
                found.append(mutant)
            elif operator == "return early" and in_body(statement) \
                    and statement.kind not in ("return", "throw", "defer", "case", "default"):
                value = early_return(statement)
                if value is not None:
                    indent = re.match(r"\s*", source.lines[statement.start]).group(0)
                    add(operator, statement, statement.start, replaced(
                        statement.start, statement.start - 1, [indent + value]))
            elif operator == "wrap in Task" and in_body(statement) and statement.kind in (
                    "expression", "if", "for", "while", "do", "switch", "throw") \
                    and not gives_the_value(statement):
                indent = re.match(r"\s*", source.lines[statement.start]).group(0)
                body = ["  " + line if line.strip() else line for line in lines_of(statement)]
                add(operator, statement, statement.start, replaced(
                    statement.start, statement.end, [indent + "Task {"] + body + [indent + "}"]))
            elif operator == "duplicate" and in_body(statement) and statement.kind == "expression" \
                    and re.search(r"\b(release|resume|admit|leave|start|cancel)\w*\(", statement.text):
                # A release, a resume or an admission done twice: a slot freed on two paths, a
                # waiter resumed twice.
                add(operator, statement, statement.start, replaced(
                    statement.start, statement.end, lines_of(statement) + lines_of(statement)))

    # Tokens, on the attendee's lines only.
    owner = {}
    for statement in every:
        for i in statement.own:
            owner[i] = statement
    for operator, pattern, replacement in token_operators(shared):
        for i in sorted(mine):
            statement = owner.get(i)
            if statement is None:
                continue
            for match in re.finditer(pattern, source.bare[i]):
                new = replacement(match, source, statement, i)
                if new is None:
                    continue
                line = source.lines[i]
                add(operator, statement, i,
                    replaced(i, i, [line[: match.start()] + new + line[match.end():]]))
    negations(source, every, mine, add, replaced)
    decided_outside(source, every, mine, add, replaced)
    return found


def gives_the_value(statement):
    """True for the single expression of a function that returns a value: its value is the
    function's, so it cannot move into a Task."""
    function = statement.function()
    return len(statement.siblings) == 1 and function is not None and function[0] == "func" \
        and early_return(statement) != "return;"


def early_return(statement):
    """What `return` looks like before this statement, or None when it cannot be written."""
    function = statement.function()
    if function is None or function[0] == "defer":
        return None
    kind, head = function
    if kind == "closure":
        return "return;"  # the `;`: else the next line would be returned
    result = re.search(r"->\s*(.+?)\s*(\{|where\b|$)", head)
    declared = re.match(r"\s*(?:\w+\s+)*var\s+\w+\s*:\s*(.+?)\s*\{", head)
    returned = result.group(1) if result else (declared.group(1) if declared else None)
    if returned is None or returned in ("Void", "()"):
        return "return;"
    if returned.endswith("?"):
        return "return nil;"
    return None


def token_operators(shared):
    """(operator, pattern over the masked line, function(match, source, statement, line) ->
    replacement or None)."""
    def constant(value):
        return lambda match, source, statement, line: value

    def compare(match, source, statement, line):
        return f" {COMPARISONS[match.group(1)]} "

    def shared_value(match, source, statement, line):
        if match.group("construct"):
            name = match.group("construct")
            return f"{name}.shared" if name in shared else None
        if match.group("background"):
            return ".viewContext"
        return None

    type_members = r"(?P<construct>\b[A-Z]\w*)\((?:[^()]|\([^()]*\))*\)(?!\s*\{)"
    return [
        ("try to try?", r"\btry\b(?![?!])", constant("try?")),
        ("try to try!", r"\btry\b(?![?!])", constant("try!")),
        ("try? to try!", r"\btry\?", constant("try!")),
        ("compare", r" (==|!=|<=|>=|<|>|&&|\|\|) ", compare),
        ("remove await", r"\bawait\s+", constant("")),
        ("perform to performAndWait", r"\.perform\b(?!AndWait)", constant(".performAndWait")),
        ("performAndWait to perform", r"\.performAndWait\b", constant(".perform")),
        ("shared value", type_members + r"|(?P<background>\.newBackgroundContext\(\))",
         shared_value),
        # An admission order changed: the back of a queue served first.
        ("first to last", r"\.(first|removeFirst|firstIndex)\b",
         lambda match, source, statement, line: "." + {
             "first": "last", "removeFirst": "removeLast", "firstIndex": "lastIndex"}[match.group(1)]),
        # A bookkeeping key that can repeat: a counter that no longer counts.
        ("key repeats", r"\+= 1\b", constant("+= 0")),
    ] + other_instance_operators()


def other_instance_operators():
    """A member of the enclosing type T, used on this instance (`self.m`, or `m` alone), to the
    same member of another instance: `T.shared` when T declares one, else a parameter of type T
    of the method; and a parameter of type T (`p.m`) to `self.m`."""
    return [("shared value", r"(?<![\w.$])(?P<self>self\.)?(?P<member>[a-z]\w*)\b(?![:\w])",
             other_instance)]


def other_instance(match, source, statement, line):
    name = match.group("member")
    typename, members, parameters, has_shared = enclosing_type(statement)
    if typename is None:
        return None
    prefix = source.bare[line][: match.start()]
    if re.search(r"\b(let|var|func|case)\s+$", prefix):
        return None  # a declaration of that name
    if match.group("self") is None and name in parameters \
            and source.bare[line][match.end():].startswith("."):
        return "self"
    if name not in members or shadowed(statement, name):
        return None
    others = [f"{typename}.shared"] if has_shared else []
    others += [p for p in parameters if p != name]
    return f"{others[0]}.{name}" if others else None


def shadowed(statement, name):
    """True when a local or a parameter of the enclosing function has this name."""
    node = statement
    while node.parent is not None and node.parent.kind != "type":
        node = node.parent
    source = node.source
    code = " ".join(source.bare[node.start: statement.start + 1])
    return re.search(rf"\b(let|var)\s+{name}\b|[(,]\s*(\w+\s+)?{name}\s*:", code) is not None


def enclosing_type(statement):
    """The innermost type around the statement: its name, its instance members, the parameters
    of the method that holds the statement whose type is that type, and whether it declares
    `static let shared`."""
    method, node = None, statement.parent
    while node is not None and node.kind != "type":
        if node.kind == "func" and method is None:
            method = node
        node = node.parent
    if node is None:
        return None, set(), [], False
    name = re.search(r"\b(?:class|struct|enum|actor|extension|protocol)\s+(\w+)", node.head)
    if name is None:
        return None, set(), [], False
    typename = name.group(1)
    members, has_shared = set(), False
    for _, children in node.blocks:
        for child in children:
            head = child.head
            if re.search(r"\bstatic let shared\b", head):
                has_shared = True
            if re.search(r"\b(static|class)\s", head):
                continue
            declared = re.search(r"\b(?:let|var|func)\s+(\w+)", head)
            if declared and child.kind in ("let", "var", "func"):
                members.add(declared.group(1))
    parameters = []
    if method is not None:
        for p in re.finditer(r"(?:\b\w+\s+)?(\w+)\s*:\s*(\w+)\b", method.head):
            if p.group(2) == typename:
                parameters.append(p.group(1))
    return typename, members, parameters, has_shared


def all_mutants(root, steps):
    return {step: step_mutants(pathlib.Path(root), step) for step in steps}
