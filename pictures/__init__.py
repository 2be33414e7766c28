"""Pictures: uploads checked, decoded and re-encoded into sizes, and the demo's
generated photos. No models: the apps that own a picture store its name."""
