"""Statistics over played hands and matches: intervals and tests (``stats``), the metrics of a run
(``metrics``), the exact match model (``exact``), calibration against outside play
(``calibrate``), policy comparison (``compare``) and burial studies (``bury``)."""
