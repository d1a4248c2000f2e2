# Prints the name of every check with a failure block in a test log that teaches: a block starts
# with the line "↳ Check: <name>" and has a Rule, a Hint and a Read before the next result line.
# The wrong-answer gate and the mutation run read logs with it:  awk -f .ci/lib/lessons.awk LOG
function close_block() {
  if (inside && rule && hint && read) taught[name] = 1
  inside = 0
}
/^↳ Check: / {
  close_block()
  name = substr($0, length("↳ Check: ") + 1)
  inside = 1
  rule = hint = read = 0
  next
}
inside && /^(✘|✔|◇|\[)/ { close_block() }
inside && /^  Rule: / { rule = 1 }
inside && /^  Hint: / { hint = 1 }
inside && /^  Read: / { read = 1 }
END {
  close_block()
  for (check in taught) print check
}
