"""Bot opponents: strategies that decide from one seat's view, and a process that plays them."""
