// Properties: one folder per oracle.
