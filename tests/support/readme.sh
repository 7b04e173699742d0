# Shell helper for the scripts that run the README's curl examples
# (tests/e2e/readme_curl.sh, tests/image/test_image.sh). Source it.

# readme_examples README DIR: writes each (```sh block of one curl line,
# following ```json block) pair of README to DIR/cmd.N and DIR/want.N and
# prints how many there are.
readme_examples() {
    awk -v dir="$2" '
        /^```sh$/ { in_sh = 1; cmd = ""; next }
        in_sh && /^```$/ { in_sh = 0; want_json = (cmd != ""); next }
        in_sh { if ($0 ~ /^curl /) cmd = $0; else cmd = ""; next }
        want_json && /^```json$/ { n++; in_json = 1; print cmd > (dir "/cmd." n); next }
        in_json && /^```$/ { in_json = 0; want_json = 0; next }
        in_json { print > (dir "/want." n); next }
        { if ($0 != "") want_json = 0 }
        END { print n + 0 }
    ' "$1"
}
