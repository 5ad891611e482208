// Deliberately breaks the folder rules: a model file may not use the runner. The test Layers.violation_fails_to_compile
// builds this against the model library's include path and expects the compiler to reject it.
#include "txprop/target.hpp"
