// Umbrella header for the system library libopus; no declarations of ours.
#include <opus/opus.h>
