// Compiles the tests' precompiled header once (tests/CMakeLists.txt); every
// test binary reuses it.
