"""``floral-host play``: a terminal front end of its own for a match against the AI.

It shows what the host's payloads say (the events, and each question's prompt, choices,
default, deadline and ``help``), in its own words: no buttons, slash commands or moderators.
In a terminal it draws with ``rich`` (colour, panels, the choices in columns) and reads with
``prompt_toolkit`` (line editing, history, Tab completion of the open question's answers and
the players' names, a bottom toolbar with the countdown; what arrives while you type is
printed above your line). From a pipe or a file it reads line by line and prints plain text.

A choice is picked by its number (several numbers for a question that takes several) or by
typing the answer; ``help``, ``cards``, ``view``, ``status`` and ``quit`` are the commands.
Modules: ``session`` (the match and its loop), ``render`` (what is shown), ``answers`` (what
is typed), ``keyboard`` (where it is typed), ``markdown`` (the games' Discord texts).
"""
