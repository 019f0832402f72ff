# Sourced by each guest test tests/vm/t_NAME.sh (see tests/vm/vm.sh): the
# host tests' helpers, a scratch directory, the kernel series in $KVER.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tmp=$(mktemp -d)
tpid=
trap '[[ -n $tpid ]] && kill $tpid 2>/dev/null; rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../trace_lib.sh"
KVER=${KVER:-$(uname -r | cut -d. -f1,2)}
