/* A Wine-only test harness, never shipped: Rust's standard library on Windows gets its random
 * bytes from ProcessPrng in bcryptprimitives.dll (Windows 10 and later), which Wine 8 does not
 * provide, so every Rust program fails to start under it. .ci/windows builds this stand-in
 * and puts it beside the executables it runs under Wine; it forwards to RtlGenRandom
 * (SystemFunction036 in advapi32), which Wine implements. Real Windows has the real DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
