//! libFuzzer over the `uri_template` target of modelctx-fuzz.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modelctx_fuzz::run("uri_template", data));
