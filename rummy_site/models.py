"""No models: the module is here because Django sends ``post_migrate`` only to apps that have one
(``rummy_site.apps`` grants the app role on it)."""
