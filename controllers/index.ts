// Public surface of controllers/: empty until the reactive framework issue adds its first export.
export {};
