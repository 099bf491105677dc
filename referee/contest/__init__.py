"""The contest core that tournaments (``referee.tournament``) and the ladder (``referee.ladder``) share.

A contest plays *blocks*: one deal at one table, in every seat rotation (``schedule``, ``seating``), dealt from a
secret no bot sees (``deal_secret``), by lanes of kept bot processes (``pool``, ``play_order``, ``lane_channel``,
``workers_lost``); it counts a block's results the same way everywhere (``counting``, ``block_stats``), chains what
it stores (``chain``) and holds its folder alone (``lock``). It imports the engine and the runner, never a
tournament's format or the ladder.
"""
