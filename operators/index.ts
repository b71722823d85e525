// Public surface of operators/: empty until the reactive framework issue adds its first export.
export {};
