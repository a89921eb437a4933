"""How a bot plays: strategies that pick an action from one seat's view (the zoo of fixed
players, and the search), the levels the service offers, and duels that measure them."""
