// Umbrella header for the system library libsamplerate; no declarations of ours.
#include <samplerate.h>
