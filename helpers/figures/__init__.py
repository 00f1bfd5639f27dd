"""Every figure of the series lives here, in one scheme.

By kind, for the figures any lesson uses: ``heatmaps``, ``vectors``,
``charts`` and ``diagrams`` (box-and-arrow drawings), sharing ``common``;
``helpers.figures.plots`` gathers the first three under one name (the notebooks'
address). One lesson's own figures, by the model they draw: ``imageplots``
(lesson 08's picture world), ``gptplots`` (lesson 11), ``scaleplots``
(lesson 12), ``inductionplots`` (lesson 13); a new lesson adds its module
here. Every figure carries a text alternative made from its numbers
(``common.AttentionFigure.alt``).
"""
