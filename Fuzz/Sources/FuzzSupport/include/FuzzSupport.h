// Entry into libFuzzer for the Swift fuzz targets.
//
// SwiftPM links each executable target with `main` defined as `<Target>_main`, so a target built
// with -parse-as-library defines that symbol (with @_cdecl) and calls vt_fuzz_main, which hands
// the arguments to libFuzzer's driver with the target's LLVMFuzzerTestOneInput.
#ifndef VISIONTASKS_FUZZ_SUPPORT_H
#define VISIONTASKS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer (all its command-line options) on this program's LLVMFuzzerTestOneInput.
int vt_fuzz_main(int argc, char **argv);

#endif
