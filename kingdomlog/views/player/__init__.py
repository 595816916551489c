"""What a player (or the public) reads: the kingdom in words, its chronicle, its maps, its charts, a turn's report.

- ``page``: one viewer's view of a campaign (redacted state, chronicle, maps, charts) and the static HTML file.
- ``chronicle``: the campaign as that viewer may know it, turn by turn, in sentences.
- ``report``: one turn as Markdown, BBCode or HTML for a play-by-post thread, the map beside it.
- ``maps``: hex maps, region maps and settlement grids as inline SVG.
- ``charts``: the main figures over turns as inline SVG.
"""
