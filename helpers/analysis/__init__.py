"""What the lessons measure on the models (numpy only; nothing here draws):

* ``probing`` (lesson 10): what the pretrained encoder's layers know;
* ``sinks`` (lesson 12): the GPT's forward pass under any mask (a sliding
  window, with or without its first tokens kept) on a held-out passage;
* ``induction`` and ``circuits`` (lesson 13): induction heads, their scores
  and the circuit that makes them.

Imports the layers below: ``runtime``, ``attention``, ``world``, ``models``.
"""
