package threadcomm

import _ "mpix/kernels" // the reduction kernels its collectives fold with
