//! libFuzzer over the `sse_events` target of modelctx-fuzz.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| modelctx_fuzz::run("sse_events", data));
