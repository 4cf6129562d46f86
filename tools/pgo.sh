#!/usr/bin/env bash
# Builds pnmate with profile-guided optimisation (PGO): the same code and the same search
# node for node, compiled with the branch and call counts of a training run. The
# optimised binary is target/pgo/release/pnmate.
#
#   tools/pgo.sh
#
# 1. an instrumented build (target/pgo-generate) solves a training set: shards of the
#    public chess suites and of the variant suites, at fixed node limits. None of it is
#    a `pnmate bench` position (those come from epd/mates.epd), so the bench measures
#    the profile on positions it was not trained on;
# 2. llvm-profdata merges the counts;
# 3. the release build is made again with them (the flags of .cargo/config.toml kept).
#
# Needs an llvm-profdata of rustc's LLVM version: `rustup component add llvm-tools`, or
# a system one (Debian: `apt-get install llvm-N`, N the major version `rustc -vV` names).
set -euo pipefail
cd "$(dirname "$0")/.."

llvm_major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=""
for candidate in "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
    "$(command -v "llvm-profdata-$llvm_major" || true)" "/usr/lib/llvm-$llvm_major/bin/llvm-profdata" \
    "$(command -v llvm-profdata || true)"; do
    if [[ -x "$candidate" ]] && "$candidate" --version | grep -q "LLVM version $llvm_major\."; then
        profdata=$candidate
        break
    fi
done
if [[ -z "$profdata" ]]; then
    echo "pgo.sh: no llvm-profdata of LLVM $llvm_major (rustc's); install one with" >&2
    echo "  rustup component add llvm-tools   (or: apt-get install llvm-$llvm_major)" >&2
    exit 1
fi

profiles=$(pwd)/target/pgo-profiles
rm -rf "$profiles"
mkdir -p "$profiles"
# cargo joins the rustflags of every matching `target.<cfg>` table, so these flags are
# added to those of .cargo/config.toml rather than replacing them.
flags() { echo "target.'cfg(all())'.rustflags=['$1']"; }

CARGO_TARGET_DIR=target/pgo-generate cargo build --release --config "$(flags "-Cprofile-generate=$profiles")"
trainee=target/pgo-generate/release/pnmate
export LLVM_PROFILE_FILE="$profiles/pnmate-%p-%m.profraw"
train() { "$trainee" epd "$@" --jobs 2 >/dev/null; }
train epd/public/matetrack.epd --shard 0/25 --nodes 300000
train epd/public/mates2000.epd --shard 0/50 --nodes 300000
for suite in epd/public/endgames/*.epd epd/public/KRvK1000pv.epd epd/public/KQvKR1000pv.epd; do
    train "$suite" --shard 0/50 --nodes 300000
done
train epd/nomate.epd --nodes 100000
for suite in epd/variants/*.epd; do
    sample="$profiles/$(basename "$suite")"
    awk 'NR % 20 == 1' "$suite" >"$sample"
    train "$sample" --variant "$(basename "$suite" .epd)" --nodes 200000
done
unset LLVM_PROFILE_FILE

"$profdata" merge -o "$profiles/merged.profdata" "$profiles"/*.profraw
CARGO_TARGET_DIR=target/pgo cargo build --release --config "$(flags "-Cprofile-use=$profiles/merged.profdata")"
echo "pgo.sh: target/pgo/release/pnmate"
