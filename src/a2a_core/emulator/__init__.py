"""The embedded AWS of `a2a-serverless dev`: moto's server plus Lambda-shaped pollers."""
