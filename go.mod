module mpix

go 1.26.8
