/* Forced into every C file of the binary wheel (scripts/build-wheel.sh passes
 * -include this file), never into an ordinary build.
 *
 * glibc versions its symbols: a program linked here takes the newest version
 * of each function it calls, and the wheel's manylinux tag is the newest
 * glibc version that any of its shared objects asks for. glibc 2.35 gave
 * hypot a new version (hypot@GLIBC_2.35: the same __ieee754_hypot without
 * the old SVID error wrapper); liblinsolve's only glibc 2.35 symbol, it alone
 * made the wheel manylinux_2_35, while everything else it carries (OpenBLAS,
 * libgomp, libgfortran, the OpenCL loader, our dlopen and pthread calls)
 * needs glibc 2.34 at most. Bound to the version that every glibc since
 * 2.2.5 has, hypot returns the same values (and ERANGE on overflow), and the
 * wheel is manylinux_2_34 (RHEL 9 and its rebuilds, Ubuntu 22.04, Debian 12).
 *
 * A .symver for a function a file does not call emits nothing. Only symbols
 * that set the tag on their own belong here: binding the 2.34 ones (dlopen,
 * pthread_*) older would gain nothing while the grafted libraries need 2.34,
 * and on a glibc before 2.34 they live in libdl.so.2 / libpthread.so.0.
 * tests/python/wheel_policy.py fails when one of our own objects needs a
 * newer glibc than every library the wheel grafts, i.e. when a new entry is
 * needed here.
 *
 * GLIBC_2.2.5 is x86_64's first version (aarch64's is GLIBC_2.17); glibc's
 * own headers are not read yet at this point, hence the guard on the target. */
#if defined(__linux__) && defined(__x86_64__)
__asm__(".symver hypot,hypot@GLIBC_2.2.5");
#endif
