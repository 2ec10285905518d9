//! libFuzzer over the `header_value` target of modelctx-fuzz.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modelctx_fuzz::run("header_value", data));
