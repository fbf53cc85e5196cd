# scripts/gpu-env.sh DEBS_DIR - sourced by the GPU scripts: unpacks the Debian
# packages of DEBS_DIR (from scripts/fetch-gpu-deps.sh) into a private prefix
# and points the compiler, CMake and the loader at it; nothing is installed.
# Does nothing when DEBS_DIR holds no package.
haze_gpu_env() {
    local debs=$1 prefix=/tmp/haze-deps f
    if [ -d "$debs" ] && ls "$debs"/*.deb >/dev/null 2>&1; then
        mkdir -p "$prefix"
        for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix"; done
        # Debian's multiarch paths inside the prefix
        export CMAKE_PREFIX_PATH="$prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
        export CMAKE_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu"
        export CMAKE_INCLUDE_PATH="$prefix/usr/include:$prefix/usr/include/x86_64-linux-gnu"
        export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        export PATH="$PATH:$prefix/usr/bin"
        export LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
    fi
}
haze_gpu_env "$1"
