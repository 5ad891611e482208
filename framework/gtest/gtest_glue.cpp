// GoogleTest glue: fixtures, target configuration, the TXPROP_* macros.
