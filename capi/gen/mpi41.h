/* MPI-4.1 procedures missing from apis.json (beside this file), which describes
 * MPI-4.0. One prototype per line, as in the MPI-4.1 standard; capi/gen reads this file
 * and declares them in mpi.h like every other standard procedure. What apis.json says
 * and C cannot is written in two annotations (capi/gen/cproto.go), which mpi.h does
 * not carry: an array's length as "array_of_requests[count]" (count counts it), and a
 * parameter's apis.json kind as a comment after it (array_of_indices below: INDEX).
 * The generated NULL-array checks read them, as they read apis.json's. */
int MPI_Buffer_flush(void);
int MPI_Buffer_iflush(MPI_Request *request);
int MPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size);
int MPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size);
int MPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size);
int MPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size);
int MPI_Comm_flush_buffer(MPI_Comm comm);
int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request);
int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
int MPI_Session_flush_buffer(MPI_Session session);
int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);
int MPI_Get_hw_resource_info(MPI_Info *hw_info);
int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[count], int *flag, MPI_Status array_of_statuses[count]);
int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[count], int *index, int *flag, MPI_Status *status);
int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[incount], int *outcount, int array_of_indices[incount] /* INDEX */, MPI_Status array_of_statuses[incount]);
int MPI_Status_get_error(const MPI_Status *status, int *error);
int MPI_Status_get_source(const MPI_Status *status, int *source);
int MPI_Status_get_tag(const MPI_Status *status, int *tag);
int MPI_Status_set_error(MPI_Status *status, int error);
int MPI_Status_set_source(MPI_Status *status, int source);
int MPI_Status_set_tag(MPI_Status *status, int tag);
int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type);
int MPI_Remove_error_class(int errorclass);
int MPI_Remove_error_code(int errorcode);
int MPI_Remove_error_string(int errorcode);
