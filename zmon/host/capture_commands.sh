# What the collectors' capture scripts share (sourced by zmon/collectors/NAME/capture.sh
# OUTDIR): the output directory from the script's first argument, and `run FILE COMMAND...`,
# which writes COMMAND's stdout to FILE and its stderr to FILE.stderr (removed when empty), and
# adds "FILE<TAB>exit status<TAB>command line" to COMMANDS.tsv. Nothing is changed on the host.
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
: > "$out/COMMANDS.tsv"
run() {
    file=$1; shift
    LC_ALL=C "$@" > "$out/$file" 2> "$out/$file.stderr"
    printf '%s\t%s\t%s\n' "$file" "$?" "$*" >> "$out/COMMANDS.tsv"
    [ -s "$out/$file.stderr" ] || rm -f "$out/$file.stderr"
}
