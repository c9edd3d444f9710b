// Umbrella header for the system library libspeexdsp; no declarations of ours.
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <speex/speex_resampler.h>
