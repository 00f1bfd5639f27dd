"""Still figures by kind: ``heatmaps``, ``vectors``, ``charts``, sharing
``common``. ``helpers.plots`` gathers them (the notebooks' address)."""
