// The model's types are part of the core's interface, so every target that imports the core sees them.
@_exported import MirrorModel
