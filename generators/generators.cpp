// RapidCheck generators with shrinking for the model.
