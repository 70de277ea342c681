#!/usr/bin/env bash
# Builds tilecode with the `mpi` feature and checks that `mpirun -np 2 tilecode simulate ...`
# counts exactly what one process counts. Installs Debian's OpenMPI (and libclang, which the
# mpi crate's bindings need) when mpirun is missing. Run from anywhere; .ci/run runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpirun >/dev/null || ! [ -e /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo test --release --features mpi --test cli_sim resume::
