// Umbrella header for the system library libmpg123 (MPEG audio layer 1/2/3 decoder); no declarations of ours.
#include <mpg123.h>
