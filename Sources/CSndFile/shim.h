// Umbrella header for the system library libsndfile; no declarations of ours.
#include <sndfile.h>
