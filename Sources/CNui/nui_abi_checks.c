/*
 * Compile-time checks of the C ABI's layout assumptions. The Swift target NuiC implements the functions of
 * nui.h with @_cdecl and receives the enums as 32-bit integers and `bool` as Swift `Bool`; these checks fail
 * the build on a platform where that would not hold.
 */
#include "nui.h"

#include <limits.h>

_Static_assert(sizeof(NuiCallbackEvent) == 4, "NuiCallbackEvent must be 32 bits wide");
_Static_assert(sizeof(NuiVadMode) == 4, "NuiVadMode must be 32 bits wide");
_Static_assert(sizeof(NuiAudioState) == 4, "NuiAudioState must be 32 bits wide");
_Static_assert(sizeof(NuiSdkLogLevel) == 4, "NuiSdkLogLevel must be 32 bits wide");
_Static_assert(sizeof(NuiAudioExtraEvent) == 4, "NuiAudioExtraEvent must be 32 bits wide");
_Static_assert(sizeof(NuiResultCode) == 4 && sizeof(int) == 4, "NuiResultCode must be a 32-bit int");
_Static_assert(sizeof(bool) == 1, "bool must be one byte");
_Static_assert(sizeof(long) == sizeof(void *), "long (the dialog number) must be pointer-sized");
