#!/usr/bin/env bash
# docs/property-guide.md quotes tests/guide/guide_examples.cpp: every line of a quoted example (a code block
# starting with "// [example: NAME]") must be a line of that example in the source, which the tests compile and
# run. A line "..." marks an omission.   check_guide.sh <guide.md> <guide_examples.cpp>
set -uo pipefail
doc=$1
src=$2
status=0
examples=0
name=""
while IFS= read -r line; do
  if [[ $line =~ ^//\ \[example:\ ([a-z-]+)\] ]]; then
    name=${BASH_REMATCH[1]}
    examples=$((examples + 1))
    # The example's lines in the source: from its marker to "// [end]".
    body=$(sed -n "/^\/\/ \[example: $name\]/,/^\/\/ \[end\]/p" "$src")
    if [ -z "$body" ]; then
      echo "check_guide: example '$name' quoted in $doc is not in $src"
      status=1
    fi
    continue
  fi
  if [ -n "$name" ]; then
    if [ "$line" = '```' ]; then name=""; continue; fi
    [ "$(echo "$line" | tr -d ' ')" = "..." ] && continue
    [ -z "$line" ] && continue
    if ! grep -qxF -- "$line" <<<"$body"; then
      echo "check_guide: $doc, example '$name': not in $src: $line"
      status=1
    fi
  fi
done <"$doc"
[ "$examples" -gt 0 ] || { echo "check_guide: no example quoted in $doc"; exit 1; }
[ "$status" = 0 ] && echo "check_guide: $examples examples of $doc match $src"
exit $status
