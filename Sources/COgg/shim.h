// Umbrella header for the system library libogg; no declarations of ours.
#include <ogg/ogg.h>
