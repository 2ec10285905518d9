//! libFuzzer over the `stdio_lines` target of modelctx-fuzz.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modelctx_fuzz::run("stdio_lines", data));
