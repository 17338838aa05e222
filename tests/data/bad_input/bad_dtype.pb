

pPlaceholder*
dtype0ç