module bot23

go 1.19
