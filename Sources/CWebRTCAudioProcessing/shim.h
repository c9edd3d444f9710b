// webrtc-audio-processing 0.3 is C++ only; Swift reaches it through CAudioShims.
// This target exists to carry its pkg-config include path and link flag.
