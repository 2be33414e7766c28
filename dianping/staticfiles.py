"""The production store of static files: whitenoise's compressed, hashed-name files, with
the web client's ES module imports rewritten to the hashed names too."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """`import … from "./lib/api.js"` in the hashed `web/app.<hash>.js` would load the
    unhashed module, which is served without the far-future caching and may belong to
    another release; Django rewrites such imports (and `export … from`) to hashed names."""

    support_js_module_import_aggregation = True
    # A module's hashed name depends on its imports' hashed names, and a pass may visit a
    # module before its imports: each pass settles at least one more step of the longest
    # import chain (app.js → router.js → pages → lib, ten steps now), the default of 5 not.
    max_post_process_passes = 20
