

aCon