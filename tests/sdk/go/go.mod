module cosmos-emulator/tests/sdk/go

go 1.21
