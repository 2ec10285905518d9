//! libFuzzer over the `era_router` target of modelctx-fuzz.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modelctx_fuzz::run("era_router", data));
