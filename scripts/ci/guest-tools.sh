#!/usr/bin/env bash
# Install the shells and awks the file transport's poll script must run under, beside the system's
# own dash and mawk: busybox (what Alpine images have) and gawk. The poll-script tests run one suite
# per flavour and, under CODECALL_REQUIRE_INTEGRATION=1, fail when a flavour is missing.
set -euo pipefail

CI_TAG="ci/guest-tools"
# shellcheck source=scripts/ci/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ci_install_exit_trap
require_root

apt_install busybox gawk
log "busybox and gawk ready in $(elapsed)s"
