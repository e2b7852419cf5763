# bash completion for mmvlog(1). Install as
# /usr/share/bash-completion/completions/mmvlog, or source it.
# Completes the commands, each command's options (tests/cmd/completion_test.py
# checks these lists against `mmvlog COMMAND --help`), archive names after -a
# (base names of .meta/.index/.N files, compressed ones too, and
# directories), file and directory names after options that take them, and
# the values of -o, -V and -Z; after push, archive names.

_mmvlog_options() {
  case "$1" in
    record)
      echo "-t --interval -s --size -T --finish -p --PID --mmv-dir --no-dir --prefix \
--include --exclude -c --config -C --check -V --archive-version -v --volsize -H --labelhost \
--archive-dir --archive-name --period --utc --compress --compress-level --retain-age \
--retain-size --sync -l --log -m --note -U --username --progress --no-progress --pidfile \
--local --spool --spool-size --unix --user --credentials --ca-file --cert-file --key-file \
--insecure --allow-plaintext-auth -h --help" ;;
    capture)
      echo "-t --interval -s --size -T --finish -p --PID --mmv-dir --no-dir --prefix \
--include --exclude -c --config -C --check -V --archive-version -v --volsize -H --labelhost \
-o --output -l --log -m --note -U --username --progress --no-progress -h --help" ;;
    replay)
      echo "-a --archive -i --instances -e --derived -S --start -T --finish -O --origin -A --align \
-t --interval -s --samples -z --hostzone -Z --timezone -o --output --dump --csv --json \
--stats --text -r --raw -F --output-file --plot --html --follow --to-mmv --speed --interpolation -c --config \
-H --no-header -k --extended-csv -x --extended-header -g --separate-header -7 --fixed-header -1 --dynamic-header -2 --overall-rank -3 --overall-rank-alt -j --live-filter -6 --sort-metric -4 --names-change -l --delimiter -f --timestamp-format -P --precision -0 --precision-force \
-R --raw-prefer -5 --ignore-unknown -q --count-scale -b --space-scale -y --time-scale \
-Q --count-scale-force -B --space-scale-force -Y --time-scale-force -p --timestamps \
-U --no-unit-info --no-inst-info -w --width -W --width-force -X --colxrow -E --repeat-header \
-u --no-interpolation -v --omit-flat -I --ignore-incompat -G --no-globals -8 --limit-filter \
-9 --limit-filter-force -J --rank -N --predicate -n --invert-filter -C --check -d --delay -h --help" ;;
    check) echo "--repair -h --help" ;;
    inspect) echo "--json -h --help" ;;
    push) echo "-h --host -p --port -s --unix --tls --user --credentials --ca-file --cert-file \
--key-file --insecure --allow-plaintext-auth --spool --restart -v --verbose --help" ;;
    demo) echo "--dir --steps -h --help" ;;
  esac
}

# Archive base names under the directory part of $1, and directories.
_mmvlog_archives() {
  local cur=$1 dir f base
  local -A seen=()
  if [[ "$cur" == */* ]]; then dir=${cur%/*}/; else dir=""; fi
  for f in "$dir"*; do
    [[ -e "$f" ]] || continue
    if [[ -d "$f" ]]; then
      COMPREPLY+=("$f/")
      continue
    fi
    base=$(printf '%s\n' "$f" | sed -nE \
      's/\.(meta|index|[0-9]+)(\.(xz|lzma|bz2|bz|gz|z|Z|zst))?$//p')
    [[ -n "$base" && -z "${seen[$base]:-}" ]] || continue
    seen[$base]=1
    [[ "$base" == "$cur"* ]] && COMPREPLY+=("$base")
  done
  local i out=()
  for i in "${COMPREPLY[@]}"; do [[ "$i" == "$cur"* ]] && out+=("$i"); done
  COMPREPLY=("${out[@]}")
}

_mmvlog() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  local commands="record capture replay check inspect push demo help"
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
    return 0
  fi
  local sub=${COMP_WORDS[1]}
  if [[ "$sub" == help ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${commands% help}" -- "$cur")
    return 0
  fi
  case "$prev" in
    -a|--archive)
      [[ "$sub" == replay ]] && { _mmvlog_archives "$cur"; return 0; } ;;
    -o|--output)
      if [[ "$sub" == replay ]]; then
        mapfile -t COMPREPLY < <(compgen -W "summary dump csv json stats text stdout" -- "$cur")
        return 0
      fi
      mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
    -V|--archive-version)
      mapfile -t COMPREPLY < <(compgen -W "2 3" -- "$cur"); return 0 ;;
    -Z|--timezone)
      local zones="UTC"
      [[ -d /usr/share/zoneinfo ]] && zones+=" $(cd /usr/share/zoneinfo && \
        find . -type f ! -name '*.tab' ! -name '*.zi' 2>/dev/null | sed 's|^\./||' | \
        grep -v -e '^posix/' -e '^right/')"
      mapfile -t COMPREPLY < <(compgen -W "$zones" -- "$cur"); return 0 ;;
    -l|--log|-F|--output-file|--plot|--html|-c|--config|--pidfile|--credentials|--unix|--ca-file|--cert-file|\
    --key-file)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
    -s)
      [[ "$sub" == push ]] && { mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0; }
      return 0 ;;
    --local)
      _mmvlog_archives "$cur"; return 0 ;;
    --mmv-dir|--archive-dir|--to-mmv|--dir|--spool)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
    -t|--interval|--size|--samples|-T|--finish|-S|--start|-O|--origin|-A|--align|\
    -v|--volsize|-p|--PID|-m|--note|-H|--labelhost|-U|--username|-i|--instances|--include|\
    --exclude|--prefix|--archive-name|--period|--compress-level|--retain-age|--retain-size|\
    --speed|--steps|-h|--host|--port|--spool-size|--user)
      return 0 ;;  # a value of the user's
  esac
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_mmvlog_options "$sub")" -- "$cur")
    return 0
  fi
  case "$sub" in
    replay|check|push) _mmvlog_archives "$cur" ;;
    *) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
  esac
  return 0
}
complete -F _mmvlog mmvlog
