"""hipkit."""
